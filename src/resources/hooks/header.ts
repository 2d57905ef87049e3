import { writeOnlyValueCommands } from './write-only.js';

export default writeOnlyValueCommands('header');
