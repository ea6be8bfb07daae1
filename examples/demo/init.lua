-- moonpool's bundled demo config: what `npm start` opens when you have no config of your own.
-- Each tool lives in its own module under lua/, so each runs in its own worker pool.
require('count_lines')
require('primes')
require('shell')
require('weather')
require('misbehave')
