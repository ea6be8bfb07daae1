// Whether to draw in colour: not when NO_COLOR is set to anything but the empty string
// (https://no-color.org). Bold and inverse video are no colour and stay.

export function colorWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env['NO_COLOR'];
  return value === undefined || value === '';
}
