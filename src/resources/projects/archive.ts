import { archiveCommand } from './settings.js';

export default archiveCommand('archive', 'Archives a project: read-only, hidden from lists that leave archived projects out, kept in full. Needs the Maintainer role.');
