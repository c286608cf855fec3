{{ config(materialized='incremental', incremental_strategy='append') }}
select id, customer_id, amount, day, '{{ invocation_id }}' as loaded_by
from {{ ref('stg_orders') }}
