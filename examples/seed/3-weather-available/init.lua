-- The seed's advice: keep a tool in a self-contained module next to the config and require it.
require('weather')
