import { requireAdmin } from '../../sandbox/auth.js';
import { ok } from '../../sandbox/http.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { experiments as declared, type Experiment } from './resource.js';

/**
 * The experiments listing (spec document 3): for team members of the operator of a hosted deployment. The sandbox
 * counts administrators as team members; everyone else gets 403.
 */

function experiment(key: string, milestone: string, group: string, state: Experiment['current_status']['state'], gates: Experiment['current_status']['gates']): Experiment {
  return {
    key,
    definition: {
      name: key,
      introduced_by_url: `https://code.example.com/platform/-/merge_requests/${1000 + key.length * 37}`,
      rollout_issue_url: `https://code.example.com/platform/-/issues/${400 + key.length * 11}`,
      milestone,
      type: 'experiment',
      group,
      default_enabled: false,
    },
    current_status: { state, gates },
  };
}

const EXPERIMENTS: Experiment[] = [
  experiment('onboarding_checklist', '17.2', 'group::activation', 'conditional', [{ key: 'boolean', value: true }, { key: 'percentage_of_actors', value: 25 }]),
  experiment('trial_discover_page', '17.5', 'group::acquisition', 'off', [{ key: 'boolean', value: false }]),
  experiment('project_templates_during_registration', '17.8', 'group::activation', 'conditional', [{ key: 'percentage_of_actors', value: 50 }]),
];

export const experiments: SandboxModule = {
  routes(api) {
    api.route(declared.routes.list, (req) => {
      requireAdmin(req);
      return ok(structuredClone(EXPERIMENTS));
    });
  },
};
