import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for settings. */
export const settings: SandboxModule = {
  routes() {},
};
