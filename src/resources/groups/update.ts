import { groups } from './resource.js';
import { updateCommand } from '../projects/settings.js';

export default updateCommand(groups, {
  description: 'Changes the settings given (the others stay): name, path, visibility, who may create projects and subgroups, two-factor authentication, access requests … A visibility that shows it to more people (internal, public) asks first (--yes off a terminal); a new visibility or path needs the group named, never the profile\'s default_group. Needs the Owner role.',
  examples: [
    'forgectl groups update acme --project-creation-level maintainer --subgroup-creation-level owner',
    'forgectl groups update acme --require-two-factor-authentication --two-factor-grace-period 24 --no-request-access-enabled',
  ],
}, { with_projects: false });
