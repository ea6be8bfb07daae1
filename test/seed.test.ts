// The seed document's examples run verbatim: capture/shquote, live blocks, and `available`.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { decodeMsgpack } from '../core/msgpack-codec.js';
import { EXAMPLES, FIXTURE_BIN, startHost } from './helpers.js';

const ORIGINAL_PATH = process.env['PATH'] ?? '';
const withWeather = (): void => {
  process.env['PATH'] = `${FIXTURE_BIN}:${ORIGINAL_PATH}`;
};
const withoutWeather = (): void => {
  process.env['PATH'] = ORIGINAL_PATH;
};

describe('seed example 1: capture and shquote', () => {
  before(withWeather);

  test('weather for Paris returns the sentence built from the command output', async () => {
    const host = await startHost(join(EXAMPLES, 'seed', '1-weather', 'init.lua'));
    const result = await host.call('weather', { city: 'Paris' });
    assert.equal(result.status, 'ok');
    assert.equal(result.content, 'The weather in Paris is sunny (1 argument: Paris)');
  });

  test('a city with quotes, $( ), backticks, ; and newlines reaches the command as one literal argument', async () => {
    const host = await startHost(join(EXAMPLES, 'seed', '1-weather', 'init.lua'));
    const city = `O'Hare "x" $(echo injected) \`echo injected\`; echo injected \n second line\ttab \\ end`;
    const result = await host.call('weather', { city });
    assert.equal(result.status, 'ok');
    assert.equal(result.content, `The weather in ${city} is sunny (1 argument: ${city})`);
  });

  test('a missing city is an invalid_args result naming args.city, and run is not called', async () => {
    const host = await startHost(join(EXAMPLES, 'seed', '1-weather', 'init.lua'));
    const result = await host.call('weather', {});
    assert.equal(result.status, 'invalid_args');
    assert.match(result.content, /^args\.city: is required$/m);
  });
});

describe('seed example 2: title, snapshots and the final state', () => {
  before(withWeather);

  test('the result carries the title and the last snapshot', async () => {
    const host = await startHost(join(EXAMPLES, 'seed', '2-weather-live', 'init.lua'));
    const titles: string[] = [];
    const result = await host.call('weather', { city: 'Oslo' }, { onTitle: (title) => titles.push(title) });
    assert.equal(result.status, 'ok');
    assert.equal(result.title, 'Oslo');
    assert.deepEqual(decodeMsgpack(result.snapshot!), {
      phase: 'done',
      city: 'Oslo',
      report: 'sunny (1 argument: Oslo)',
    });
    assert.deepEqual(titles, ['Oslo']);
  });
});

describe('seed example 3: available gates the tool', () => {
  test('with a weather command on PATH, the tool is listed and runs', async () => {
    withWeather();
    const host = await startHost(join(EXAMPLES, 'seed', '3-weather-available', 'init.lua'));
    assert.deepEqual(
      host.tools().map((tool) => tool.name),
      ['weather'],
    );
    assert.equal((await host.call('weather', { city: 'Rome' })).status, 'ok');
  });

  test('without one, the tool is absent from the list and calling it says it is unavailable', async () => {
    withoutWeather();
    const host = await startHost(join(EXAMPLES, 'seed', '3-weather-available', 'init.lua'));
    assert.deepEqual(host.tools(), []);
    const result = await host.call('weather', { city: 'Rome' });
    assert.equal(result.status, 'unavailable');
    assert.match(result.content, /weather is unavailable: available\(\) returned false/);
  });
});
