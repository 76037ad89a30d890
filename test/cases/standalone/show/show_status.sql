SHOW STATUS;

SHOW STATUS LIKE 'Uptime';

SELECT connection_id(), pg_backend_pid() AS pid;
