-- TQL EVAL of functions, aggregations and operators: GreptimeDB's column names and order
CREATE TABLE metrics (
    ts TIMESTAMP TIME INDEX,
    val DOUBLE,
    host STRING,
    `service` STRING,
    PRIMARY KEY (host, service)
);

INSERT INTO metrics VALUES
    (0, 10, 'host1', 'service1'), (30000, 15, 'host1', 'service1'), (60000, 20, 'host1', 'service1'), (90000, 25, 'host1', 'service1'), (120000, 30, 'host1', 'service1'), (150000, 35, 'host1', 'service1'), (180000, 40, 'host1', 'service1'),
    (0, 5, 'host1', 'service2'), (30000, 10, 'host1', 'service2'), (60000, 15, 'host1', 'service2'), (90000, 20, 'host1', 'service2'), (120000, 25, 'host1', 'service2'), (150000, 30, 'host1', 'service2'), (180000, 35, 'host1', 'service2'),
    (0, 8, 'host2', 'service1'), (30000, 13, 'host2', 'service1'), (60000, 18, 'host2', 'service1'), (90000, 23, 'host2', 'service1'), (120000, 28, 'host2', 'service1'), (150000, 33, 'host2', 'service1'), (180000, 38, 'host2', 'service1');

TQL EVAL (60, 180, '60s') sum(rate(metrics[1m]));

TQL EVAL (60, 180, '60s') sum by(host) (rate(metrics[1m]));

TQL EVAL (60, 180, '60s') sum(rate(metrics{host=~"host.*", service!="service2"}[1m])) * 100;

TQL EVAL (60, 180, '60s') sum by(host) (rate(metrics[1m])) * 60;

TQL EVAL (120, 120, '1s') sum(metrics);

TQL EVAL (120, 120, '1s') avg without (service) (metrics);

TQL EVAL (120, 120, '1s') topk(2, metrics);

TQL EVAL (120, 120, '1s') count_values("v", metrics);

TQL EVAL (120, 120, '1s') quantile_over_time(0.5, metrics[1m]);

TQL EVAL (120, 120, '1s') increase(metrics{service="service2"}[2m]);

TQL EVAL (120, 120, '1s') label_replace(metrics{service="service2"}, "dc", "$1", "host", "host(.*)");

TQL EVAL (120, 120, '1s') abs(-metrics{service="service2"});

TQL EVAL (120, 120, '1s') metrics{service="service1"} - on(host) metrics{service="service2"};

TQL EVAL (120, 120, '1s') metrics{service="service1"} / ignoring(service) group_left metrics{service="service2"};

TQL EVAL (120, 120, '1s') metrics{host="host2"} or metrics{host="host1", service="service2"};

TQL EVAL (120, 120, '1s') metrics > bool 27;

TQL EVAL (0, 30, '10s') metrics{host="host1", service="service1"} > 10;

-- the label "AbCdE" is not "abcde"
TQL EVAL (120, 120, '1s') sum by (HOST) (metrics);

-- literals and scalars: time | value
TQL EVAL (0, 10, '5s') 1;

TQL EVAL (0, 10, '5s') 1 * 2 + 4 / 6 - 10 % 2 ^ 2;

TQL EVAL (0, 10, '5s') "1+1";

TQL EVAL (60, 60, '1s') 10 atan2 20;

TQL EVAL (0, 10, '5s') time();

TQL EVAL (0, 10, '5s') scalar(sum(metrics));

TQL EVAL (0, 10, '5s') vector(1);

-- two tables: lhs/rhs or the tables' names
CREATE TABLE completion(ts TIMESTAMP TIME INDEX, model STRING PRIMARY KEY, val DOUBLE);

CREATE TABLE prompt(ts TIMESTAMP TIME INDEX, model STRING PRIMARY KEY, val DOUBLE);

INSERT INTO completion VALUES (0, 'model-a', 10), (5000, 'model-b', 20), (10000, 'model-a', 30);

INSERT INTO prompt VALUES (0, 'model-a', 100), (5000, 'model-b', 200), (10000, 'model-a', 300);

TQL EVAL (0, 10, '5s') sum(completion * 0.0015 / 1000) by (model) + sum(prompt * 0.0015 / 1000) by (model);

TQL EVAL (0, 10, '5s') sum(completion * 0.0015 / 1000) by (model) + sum(prompt * 0.0015 / 1000) by (model) AS result;

TQL EVAL (0, 10, '5s') sum(completion / 1000) + max(completion / 1000);

TQL EVAL (0, 10, '5s') completion atan2 prompt;

-- errors: PromQL syntax (2000), bad parameters, execution
TQL EVAL (0, 10, '5s') sum(;

TQL EVAL (0, 10, '5s') rate(metrics);

TQL EVAL (0, 10, '5s') {__name__!="metrics"};

TQL EVAL (0, 10, '5s') time() < 1;

TQL EVAL (10, 0, '5s') metrics;

TQL EVAL (0, 10, '0s') metrics;

TQL EVAL (0, 100000, '1s') metrics;

TQL EVAL (0, 10, 'five') metrics;

TQL EVAL ('yesterday', 10, '1s') metrics;

TQL EVAL ((SELECT 1 FROM metrics), 10, '1s') metrics;

TQL EVAL (0, 10, '5s') label_replace(metrics, "dst", "$1", "host", "(.*");

DROP TABLE metrics;

DROP TABLE completion;

DROP TABLE prompt;
