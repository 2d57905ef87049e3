import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for alerts. */
export const alerts: SandboxModule = {
  routes() {},
};
