import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for secure files. */
export const secureFiles: SandboxModule = {
  routes() {},
};
