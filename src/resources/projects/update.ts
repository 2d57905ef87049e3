import { projects } from './resource.js';
import { updateCommand } from './settings.js';

export default updateCommand(projects, {
  description: 'Changes the settings given (the others stay): name, path, visibility, default branch, merge method, squash option, pipeline and discussion requirements … A visibility that shows it to more people (internal, public) asks first (--yes off a terminal); a new visibility or path needs the project named, never the profile\'s default_project. Needs the Maintainer role (Owner for visibility and path).',
  examples: [
    'forgectl projects update acme/api --merge-method ff --squash-option default_on --only-allow-merge-if-pipeline-succeeds',
    'forgectl projects update acme/api --no-remove-source-branch-after-merge --description "The API of Acme"',
  ],
});
