import type { SandboxModule } from './index.js';

/** Sandbox routes and seed data for merge trains. */
export const mergeTrains: SandboxModule = {
  routes() {},
};
