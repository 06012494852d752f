// The Markdown of a published note as HTML that carries no script: markdown-it with raw HTML escaped (`html: false`),
// which refuses javascript:, vbscript:, file: and most data: links, and rel="nofollow noopener noreferrer" on links.
// Run on the rendering thread only (render-worker.ts): rendering hostile Markdown can take seconds.
import MarkdownIt from 'markdown-it'

const md = new MarkdownIt({ html: false })
const renderLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options))
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet('rel', 'nofollow noopener noreferrer')
  return renderLinkOpen(tokens, idx, options, env, self)
}

export const renderMarkdown = (body: string): string => md.render(body)
