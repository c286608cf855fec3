{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['day']) }}
select round(sum(amount), 2) as revenue, count(*) as orders, day
from {{ ref('stg_orders') }}
{% if is_incremental() %}
where day >= (select max(day) from {{ this }})
{% endif %}
group by day
