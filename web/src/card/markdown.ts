// Markdown to safe HTML (a lazy chunk): markdown-it without raw HTML, links only to http(s), mailto and paths on this
// site; then DOMPurify. Images become links, so no picture is fetched from another host.
import DOMPurify from 'dompurify'
import MarkdownIt from 'markdown-it'

const md = new MarkdownIt({ html: false, linkify: true, breaks: true })
const SAFE_LINK = /^(https?:|mailto:|\/(?!\/)|#)/i
md.validateLink = (url) => SAFE_LINK.test(url.trim())
md.renderer.rules.image = (tokens, idx) => {
  const t = tokens[idx]
  const src = t.attrGet('src') ?? ''
  const alt = t.content || src
  return `<a href="${md.utils.escapeHtml(String(src))}">${md.utils.escapeHtml(String(alt))}</a>`
}
const defaultLink = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options))
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const href = String(tokens[idx].attrGet('href') ?? '')
  if (!href.startsWith('/') && !href.startsWith('#')) {
    tokens[idx].attrSet('rel', 'noopener noreferrer nofollow')
    tokens[idx].attrSet('target', '_blank')
  }
  return defaultLink(tokens, idx, options, env, self)
}

export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(md.render(text), { ADD_ATTR: ['target'], FORBID_TAGS: ['style', 'img', 'form', 'input'], FORBID_ATTR: ['style'] })
}
