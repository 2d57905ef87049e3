import type { Dispatcher, EnvHttpProxyAgent as EnvHttpProxyAgentType } from 'undici';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import api from 'undici/lib/api/index.js';

// What undici's index does, without loading the rest of undici.
Object.assign(DispatcherClass.prototype, api);

export { Agent, EnvHttpProxyAgent };
export type { Dispatcher, EnvHttpProxyAgentType };
