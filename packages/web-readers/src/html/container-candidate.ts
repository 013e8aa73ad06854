import { classWords, namesBoilerplate } from './boilerplate-words.js'
import { type DomElement, type DomNode, ELEMENT_NODE } from './dom.js'
import { CHROME_TAGS, unseen } from './dom-clean.js'
import { attributeOf, descendants, nextNode, textReaches } from './dom-walk.js'
import { MIN_ITEM_CHARS, SHUT, isArticleRun, kindOf, kindWords } from './list-items.js'
import { DEFAULT_RULES, pruneContent, trimLeadingLabels } from './prune-content.js'

/**
 * The second main-content candidate, found by a different method from
 * readability's scoring: the element that the page's own markup names as the
 * article body, by a cascade of tiers from the most specific name to the
 * least. Within a tier the first element in document order wins; a tier
 * whose element holds too little text gives way to the next.
 *
 * 1. itemprop=articleBody, or a class or id made of an article word and a
 *    body word (article-body, entry-content, post__text, storyBody);
 * 2. the first <article> (unless the page is a list of articles: see below);
 * 3. a class or id that is an article word alone (story, post, entry);
 * 4. the page's main area (main, role=main, a class or id content or main).
 */
const ARTICLE_WORDS = new Set(['article', 'post', 'entry', 'story', 'blog', 'news', 'single', 'page', 'main', 'art', 'item', 'node', 'body'])
const BODY_WORDS = new Set(['body', 'content', 'text', 'copy', 'entry', 'inner', 'main', 'detail', 'details', 'fulltext'])
const ALONE_WORDS = new Set(['story', 'post', 'entry', 'article', 'hentry', 'fulltext', 'storycontent', 'postcontent', 'articlecontent', 'articlebody', 'entrycontent', 'postbody', 'storybody', 'bodytext', 'articletext', 'posttext'])
const BODY_HINT = /body|content|text|copy|entry|inner|main|detail/
const MAIN_WORDS = new Set(['content', 'main', 'maincontent', 'primary'])

/** "article-body", "article__body", "articleBody" and "articlebody" all give article+body (`names`: the class and id). */
function isArticleBodyName(itemprop: string | null, names: string): boolean {
  if (itemprop?.toLowerCase() === 'articlebody') return true
  // every name this matches holds a body word (the long article words alone among them)
  if (!BODY_HINT.test(names.toLowerCase())) return false
  const words = classWords(names)
  for (let index = 0; index + 1 < words.length; index++) {
    if (ARTICLE_WORDS.has(words[index]!) && BODY_WORDS.has(words[index + 1]!) && words[index] !== words[index + 1]) return true
  }
  for (const word of words) if (ALONE_WORDS.has(word) && word.length > 9) return true
  return false
}

/** Whether a class or id token, without its dashes and underscores, is one of `words`. */
function hasToken(names: string, words: ReadonlySet<string>): boolean {
  for (const token of names.toLowerCase().split(/\s+/)) if (token && words.has(token.replace(/[-_]/g, ''))) return true
  return false
}

/**
 * The tier (0 to 3, above) an element's names put it in, or -1; its
 * attributes read once, and each combination of tag and names decided once
 * per page (`known`: pages repeat a few class names on many elements).
 */
function tierOf(element: DomElement, known: Map<string, number>): number {
  const name = element.localName
  const itemprop = attributeOf(element, 'itemprop')
  const role = attributeOf(element, 'role')
  const names = `${attributeOf(element, 'class') ?? ''} ${attributeOf(element, 'id') ?? ''}`
  if (name !== 'article' && name !== 'main' && !NAME_HINT.test(`${names} ${itemprop ?? ''} ${role ?? ''}`)) return -1
  const key = `${name}\n${names}\n${itemprop ?? '\u0000'}\n${role ?? '\u0000'}`
  let tier = known.get(key)
  if (tier === undefined) known.set(key, (tier = decideTier(name, itemprop, role, names)))
  return tier
}

function decideTier(name: string, itemprop: string | null, role: string | null, names: string): number {
  if (isArticleBodyName(itemprop, names)) return 0
  if (name === 'article') return 1
  if (role === 'article' || hasToken(names, ALONE_WORDS)) return 2
  if (name === 'main' || role === 'main' || hasToken(names, MAIN_WORDS)) return 3
  return -1
}

const CONTAINER_TAGS = new Set(['article', 'div', 'section', 'main', 'td'])

export function isContainerTag(element: DomElement): boolean {
  return CONTAINER_TAGS.has(element.localName) || element.hasAttribute('itemprop') || element.hasAttribute('role')
}

/** Every name the tiers match holds one of these (a quick test before the words are split). */
const NAME_HINT = /body|content|text|copy|entry|inner|main|detail|story|post|article|primary|hentry/i

/** Enough text to be an article rather than a teaser or an empty frame. */
const MIN_CONTAINER_CHARS = 250

/** Page chrome that can sit inside an article container. */
const hiddenOrChrome = unseen(CHROME_TAGS)

/** Cleans a copy of part of the page as the candidates are cleaned: hidden elements and chrome out, then pruneContent and trimLeadingLabels. */
export function cleanCandidate(copy: DomElement) {
  pruneContent(copy, DEFAULT_RULES, hiddenOrChrome)
  trimLeadingLabels(copy)
}
function sharesClassWord(one: DomElement, other: DomElement): boolean {
  const words = new Set(kindWords(one))
  const others = kindWords(other)
  if (!words.size && !others.length) return true
  return others.some((word) => words.has(word))
}

/** How many levels above the named element are searched for the repeated item. */
const ITEM_LEVELS = 3

function contains(ancestor: DomNode, node: DomNode): boolean {
  for (let current: DomNode | null = node; current; current = current.parentNode) if (current === ancestor) return true
  return false
}

/**
 * `containers` are the page's container elements, where items elsewhere are
 * looked for. When the named element is one of a run of items of the same kind (the
 * posts of a thread, the answers to a question, the results of a search),
 * their nearest common container: a page of many blocks keeps them all. The
 * items are the element's siblings of the same tag sharing a class word, at
 * its own level or up to ITEM_LEVELS above, or elements elsewhere with
 * exactly its class words. A run of whole articles (each with a heading and
 * long) is what infinite scrolling appends: the first one stands alone.
 */
function listAround(element: DomElement, containers: DomElement[]): DomElement | undefined {
  let item: DomElement = element
  for (let level = 0; level <= ITEM_LEVELS && item.parentNode; level++) {
    const parent = item.parentNode as DomElement
    if (parent.localName === 'body' || parent.localName === 'html') break
    let similar = 0
    for (let sibling = parent.firstChild; sibling; sibling = sibling.nextSibling) {
      if (sibling === item || sibling.nodeType !== ELEMENT_NODE) continue
      const other = sibling as DomElement
      if (other.localName === item.localName && sharesClassWord(item, other) && textReaches(other, MIN_ITEM_CHARS)) similar++
    }
    if (similar >= 2) return isArticleRun(parent, item) ? undefined : parent
    item = parent
  }
  const kind = kindOf(element)
  if (kind.endsWith('.')) return undefined
  const firstWord = kind.slice(element.localName.length + 1).split('.')[0]!
  const alike = containers.filter(
    (other) =>
      other !== element && other.localName === element.localName && (attributeOf(other, 'class') ?? '').toLowerCase().includes(firstWord) &&
      kindOf(other) === kind && !contains(other, element) && !contains(element, other) && textReaches(other, MIN_ITEM_CHARS),
  )
  if (alike.length < 2) return undefined
  let common: DomNode | null = element.parentNode
  while (common && !alike.every((other) => contains(common!, other))) common = common.parentNode
  if (!common || (common as DomElement).localName === 'body' || (common as DomElement).localName === 'html') return undefined
  return common as DomElement
}

/** At most this many named containers are tried (each is copied and cleaned), and this many searched for the list they are an item of. */
const MAX_TRIES = 4
const MAX_WIDENINGS = 8

/**
 * A cleaned copy of the element the markup names as the article, or
 * undefined: the document itself is left as it was, for readability.
 * `containers` are the body's elements that isContainerTag accepts, in
 * document order, when the caller has them. The candidates are collected in one pass; each tier's elements are tried in
 * order until a cleaned copy keeps enough text.
 */
export function containerCandidate(body: DomElement, containers = descendants(body, isContainerTag)): DomElement | undefined {
  const tiers: DomElement[][] = [[], [], [], []]
  const known = new Map<string, number>()
  for (const element of containers) {
    const tier = tierOf(element, known)
    if (tier >= 0) tiers[tier]!.push(element)
  }
  let tries = 0
  let widenings = 0
  for (const tier of tiers) {
    for (const element of tier) {
      if (!textReaches(element, MIN_ITEM_CHARS)) continue
      // A short post can be one of a thread whose posts together are long enough.
      const container = widenings++ < MAX_WIDENINGS ? (listAround(element, containers) ?? element) : element
      if (container === element && !textReaches(element, MIN_CONTAINER_CHARS)) continue
      if (++tries > MAX_TRIES) return undefined
      const copy = (container as unknown as { cloneNode(deep: boolean): DomElement }).cloneNode(true)
      cleanCandidate(copy)
      if (!textReaches(copy, MIN_CONTAINER_CHARS)) continue
      // The article runs on past the element (markup that closed it early): the name does not delimit it.
      if (runsOnAfter(container, body)) return undefined
      return copy
    }
  }
  return undefined
}

/** A paragraph of prose: long enough, and ending a sentence. */
function isProse(element: DomElement): boolean {
  const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim()
  return text.length >= 80 && /[.!?。！？…]["'”’)\]]*$/u.test(text)
}

/** Paragraphs of prose after the container that say the article goes on: this many, within its grandparent. */
const RUN_ON_PARAGRAPHS = 2

/**
 * Whether prose paragraphs follow the container, within its grandparent (or
 * the body), outside page chrome, furniture, other articles and other
 * elements of the container's kind (the next post, a teaser): the page's
 * markup closed the container before the article ended. One walk of the
 * scope in document order, the container's subtree skipped; whether an
 * element is shut off is decided once for each.
 */
function runsOnAfter(container: DomElement, body: DomElement): boolean {
  let scope: DomElement = container
  for (let level = 0; level < 2 && scope.parentNode && scope !== body; level++) scope = scope.parentNode as DomElement
  if (scope === container) return false
  const kind = kindOf(container)
  const shut = new Map<DomNode, boolean>([[scope, false]])
  // Whether an element below the scope is, or is inside, one of those: up to the nearest element decided before.
  const isShut = (element: DomElement): boolean => {
    const chain: DomElement[] = []
    let node: DomElement = element
    let known = shut.get(node)
    while (known === undefined) {
      if (node.localName === 'article' || kindOf(node) === kind || SHUT.has(node.localName) || namesBoilerplate(node)) known = true
      else {
        chain.push(node)
        node = node.parentNode as DomElement
        known = shut.get(node)
        continue
      }
      shut.set(node, true)
    }
    for (const open of chain) shut.set(open, known)
    return known
  }
  let prose = 0
  let after = false
  for (let node: DomNode | null = scope.firstChild; node; node = nextNode(node, scope, node === container)) {
    if (node === container) after = true
    else if (node.nodeType === ELEMENT_NODE) {
      const element = node as DomElement
      if (after && element.localName === 'p' && isProse(element) && !isShut(element.parentNode as DomElement) && ++prose >= RUN_ON_PARAGRAPHS) return true
    }
  }
  return false
}

