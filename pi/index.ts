// `moonpool/pi`: moonpool's tools inside the pi coding agent, with their live Lua render. The
// default export is a pi extension factory (`export { default } from 'moonpool/pi';`); nothing
// here imports pi's packages, which pi provides to the extensions it loads.
import { createMoonpoolExtension } from './extension.js';

export { createMoonpoolExtension, type MoonpoolExtension } from './extension.js';
export type { MoonpoolDetails } from './tool-details.js';
export type { PiExtensionApi, PiToolDefinition, PiComponent, PiTheme, PiContext } from './pi-api.js';

export default createMoonpoolExtension();
