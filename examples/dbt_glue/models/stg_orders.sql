{{ config(materialized='view') }}
select id, customer_id, amount, cast(day as string) as day
from {{ ref('orders') }}
