import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for notes. */
export const notes: SandboxModule = {
  routes() {},
};
