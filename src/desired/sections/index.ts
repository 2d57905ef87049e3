import type { Level } from '../model.js';
import type { Section } from '../section.js';
import { groupTokensSection, projectTokensSection } from '../../resources/access-tokens/desired.js';
import { applicationSettingsSection, integrationsSection, planLimitsSection } from './admin.js';
import { filesSection } from '../../resources/files/desired.js';
import { groupMembersSection, membersSection } from '../../resources/members/desired.js';
import { groupProtectedBranchesSection, projectProtectedBranchesSection } from '../../resources/protected-branches/desired.js';
import {
  approvalRulesSection, approvalsSection, badgesSection, freezePeriodsSection, hooksSection, protectedTagsSection, pullMirrorSection, pushRuleSection,
  secureFilesSection,
} from './project.js';
import { groupSettingsSection, projectSettingsSection } from './settings.js';
import { groupVariablesSection, instanceVariablesSection, projectVariablesSection } from '../../resources/variables/desired.js';

/** Every section a desired-state file may have, by level, in the order plans show and apply them. */
export const SECTIONS: Record<Level, Section[]> = {
  project: [
    projectSettingsSection,
    membersSection,
    pushRuleSection,
    protectedTagsSection,
    badgesSection,
    freezePeriodsSection,
    approvalsSection,
    approvalRulesSection,
    pullMirrorSection,
    hooksSection,
    secureFilesSection,
    filesSection,
    projectTokensSection,
    projectVariablesSection,
    // After the members a rule may name (a user added in the same apply is waited for): keep it after members.
    projectProtectedBranchesSection,
  ],
  group: [groupSettingsSection, groupMembersSection, integrationsSection, groupTokensSection, groupVariablesSection, groupProtectedBranchesSection],
  instance: [applicationSettingsSection, planLimitsSection, instanceVariablesSection],
};

export function sectionOf(level: Level, key: string): Section | undefined {
  return SECTIONS[level].find((section) => section.key === key);
}
