import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for licenses. */
export const licenses: SandboxModule = {
  routes() {},
};
