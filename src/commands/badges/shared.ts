import type { OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { p } from '../../api/path.js';

/**
 * A badge URL as the service accepts it: http(s) with a literal host. Placeholders such as %{project_path} may
 * appear in the path and query but not as the host (the service answers "is blocked: URI is invalid").
 */
export function parseBadgeUrl(flag: string) {
  return (value: string): string => {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || !url.hostname || url.hostname.includes('%')) {
      throw new UsageError(`${flag} must be an http(s) URL with a literal host name, got "${value}"`, 'placeholders such as %{project_path} work in the path and query');
    }
    return value;
  };
}

export const linkUrlOption = (required: boolean): OptionDef => ({
  flags: '--link-url <url>',
  description: 'where the badge links to; placeholders such as %{project_path} and %{default_branch} are rendered',
  parse: parseBadgeUrl('--link-url'),
  required,
});

export const imageUrlOption = (required: boolean): OptionDef => ({
  flags: '--image-url <url>',
  description: 'the badge image; placeholders are rendered as in --link-url',
  parse: parseBadgeUrl('--image-url'),
  required,
});

export const nameOption: OptionDef = { flags: '--name <name>', description: 'badge name' };

export const badgeColumns = ['id', 'kind', 'name', 'rendered_link_url', 'rendered_image_url'];

export const badgesPath = (project: string): string => p`/projects/${project}/badges`;
export const badgePath = (project: string, id: number): string => p`/projects/${project}/badges/${id}`;
