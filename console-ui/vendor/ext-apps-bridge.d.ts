// The types of vendor/ext-apps-bridge.js, which scripts/build-browser-bundles.mjs bundles from
// @modelcontextprotocol/ext-apps (not committed): the console's type check reads them here.
export { AppBridge, PostMessageTransport, buildAllowAttribute } from '@modelcontextprotocol/ext-apps/app-bridge';
