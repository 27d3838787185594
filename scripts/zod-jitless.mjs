// The first module of each browser bundle of scripts/build-browser-bundles.mjs: sets zod's
// `jitless` before any schema exists (zod reads it when a schema is made). Without it zod probes
// `new Function` once, which a page without 'unsafe-eval' (the console's policy, a view's)
// refuses and reports as a Content Security Policy violation; zod then validates without it anyway.
import { config } from 'zod/v4/core';

config({ jitless: true });
