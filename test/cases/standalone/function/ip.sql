CREATE TABLE ip4 (`id` INT, `time` TIMESTAMP DEFAULT 0, ip_addr STRING, ip_numeric UINT32, subnet_mask UINT8, cidr_range STRING, PRIMARY KEY(`id`), TIME INDEX(`time`));

CREATE TABLE ip6 (`id` INT, `time` TIMESTAMP DEFAULT 0, ip_addr STRING, ip_hex STRING, subnet_mask UINT8, cidr_range STRING, PRIMARY KEY(`id`), TIME INDEX(`time`));

INSERT INTO ip4 (`id`, ip_addr, ip_numeric, subnet_mask, cidr_range) VALUES (1, '192.168.1.1', 3232235777, 24, '192.168.1.0/24'), (2, '10.0.0.1', 167772161, 8, '10.0.0.0/8'), (3, '172.16.0.1', 2886729729, 12, '172.16.0.0/12'), (4, '255.255.255.255', 4294967295, 32, '255.255.255.255/32'), (5, '0.0.0.0', 0, 0, '0.0.0.0/0');

INSERT INTO ip6 (`id`, ip_addr, ip_hex, subnet_mask, cidr_range) VALUES (1, '2001:db8::1', '20010db8000000000000000000000001', 32, '2001:db8::/32'), (2, '::1', '00000000000000000000000000000001', 128, '::1/128'), (3, 'fe80::1234', 'fe800000000000000000000000001234', 10, 'fe80::/10'), (4, '::ffff:192.168.0.1', '00000000000000000000ffffc0a80001', 96, '::ffff:192.168.0.0/96'), (5, '2001:db8:1::1', '20010db8000100000000000000000001', 48, '2001:db8:1::/48'), (6, '2001:0:0:0:0:0:0:1', '20010000000000000000000000000001', 64, '2001::/64');

SELECT `id`, ip_addr, ipv4_string_to_num(ip_addr) AS num, ipv4_num_to_string(ip_numeric) AS addr, inet_ntoa(ip_numeric) AS addr2 FROM ip4 ORDER BY `id`;

SELECT `id`, ipv4_to_cidr(ip_addr) AS auto_cidr, ipv4_to_cidr(ip_addr, subnet_mask) AS specified_cidr FROM ip4 ORDER BY `id`;

SELECT `id`, ipv4_in_range(ip_addr, '192.168.0.0/16') AS in_16, ipv4_in_range('10.1.2.3', cidr_range) AS in_range FROM ip4 ORDER BY `id`;

SELECT `id`, ipv6_num_to_string(ip_hex) AS addr FROM ip6 ORDER BY `id`;

SELECT `id`, ipv6_to_cidr(ip_addr) AS auto_cidr, ipv6_to_cidr(ip_addr, subnet_mask) AS specified_cidr FROM ip6 ORDER BY `id`;

SELECT `id`, ipv6_in_range(ip_addr, cidr_range) AS in_own, ipv6_in_range(ip_addr, '2001:db8::/32') AS in_doc FROM ip6 ORDER BY `id`;

SELECT ipv4_num_to_string(3232235521);

SELECT ipv4_to_cidr('192.168') AS a, ipv4_to_cidr('192.168.1.0') AS b, ipv6_to_cidr('2001:db8') AS c;

SELECT ipv4_string_to_num(NULL) AS a, ipv4_to_cidr('10.1.2.3', NULL) AS b, ipv6_in_range(NULL, '::/0') AS c;

SELECT ipv4_string_to_num('192.168.1');

SELECT ipv4_num_to_string(4294967296);

SELECT ipv4_in_range('10.0.0.1', '10.0.0.0/33');

SELECT ipv4_in_range('10.0.0.1', '10.0.0.0');

SELECT ipv4_in_range('', '10.0.0.0/8');

SELECT ipv6_num_to_string('abc');

SELECT ipv6_to_cidr('zz::1');

DROP TABLE ip4;

DROP TABLE ip6;
