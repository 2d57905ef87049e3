import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for freeze periods. */
export const freezePeriods: SandboxModule = {
  routes() {},
};
