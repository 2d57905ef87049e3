import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for mirrors. */
export const mirrors: SandboxModule = {
  routes() {},
};
