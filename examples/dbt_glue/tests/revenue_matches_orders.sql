-- a singular test: the daily revenue adds up to the orders' amounts (rows returned are failures)
select 1 as failure
from (select round(sum(revenue), 2) as r from {{ ref('daily_revenue') }}) a
cross join (select round(sum(amount), 2) as o from {{ ref('orders') }}) b
where a.r <> b.o
