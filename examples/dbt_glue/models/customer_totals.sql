{{ config(materialized='table') }}
select c.id as customer_id, c.name, c.country, count(o.id) as orders, round(sum(o.amount), 2) as total
from {{ ref('customers') }} c
left join {{ ref('stg_orders') }} o on o.customer_id = c.id
group by c.id, c.name, c.country
