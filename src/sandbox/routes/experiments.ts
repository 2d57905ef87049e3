import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for experiments. */
export const experiments: SandboxModule = {
  routes() {},
};
