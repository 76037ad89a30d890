SELEC 42;

SELECT FROM WHERE;

CREATE TABLE IF NOT EXIST t (ts TIMESTAMP TIME INDEX);

SHOW COLUMNS;

SET time_zone = 'Asia/Shanghai';

SET time_zone = 'Mars/Olympus';

SET nope = 1;

ADMIN nope('x');

ADMIN FLUSH_TABLE('missing');
