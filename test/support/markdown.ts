/**
 * Code blocks read from the project's Markdown, so that the tests run what the docs show.
 *
 * @module
 */

/**
 * The first fenced block of language `lang` after the heading line `heading` (e.g. "## Go (tested)").
 * @throws Error naming the heading and language when there is none
 */
export function codeBlockAfter(markdown: string, heading: string, lang: string): string {
  const at = markdown.indexOf(`\n${heading}\n`);
  const match = at < 0 ? null : new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(markdown.slice(at));
  if (!match?.[1]) throw new Error(`no ${lang} block under ${heading}`);
  return match[1];
}
