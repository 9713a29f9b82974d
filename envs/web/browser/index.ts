/**
 * The web env's browser half: one shared Chromium, a session (browser context) per env instance,
 * WebArena's observation (accessibility tree with ids) and action grammar.
 */
export { BrowserHost, getBrowserHost, type BrowserHostOptions } from './browser-host.ts';
export { openWebSession, normalizeUrl, WebSession, type ActResult, type WebSessionOptions } from './web-session.ts';
export { parseWebAction, formatWebAction, extractWebAction, WEB_ACTION_GRAMMAR, type ParseResult, type WebAction, type WebActionKind } from './grammar.ts';
export { formatWebObservation, formatTabs, type WebObservation, type WebTab } from './observation.ts';
export { formatAxTree, type AxTreeText, type RawAxNode } from './ax-tree.ts';
export { CHROMIUM_ARGS, DEFAULT_CHROMIUM, chromiumPath, launchChromium, loadChromium } from './playwright.ts';
