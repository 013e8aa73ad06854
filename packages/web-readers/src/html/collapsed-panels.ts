import { attributeWords } from './boilerplate-words.js'
import { type DomElement, type DomNode, ELEMENT_NODE } from './dom.js'
import { isHidden, show } from './dom-clean.js'
import { attributeOf, nextNode, textReaches } from './dom-walk.js'

/**
 * A shop's product page folds its description, its details and its care
 * notes into an accordion: a button ("Description") and a panel under it,
 * hidden (`display: none`, `hidden`, `aria-hidden`) until the button is
 * pressed. The text is in the page and the annotators of WCXB keep it; readability
 * drops every hidden element, so the product's description is lost (a fire
 * pit's page kept its features and lost its description). On a shop's
 * product page (shop-signals.ts), a hidden element that is a disclosure's
 * panel is shown before the content is chosen when its label names the
 * product's own description (Description, Details, Features, Ingredients,
 * Benefits, Care, How to use, ...): a panel by its role (`region`,
 * `tabpanel`), by a control's `aria-controls` naming it, or by a class or id
 * word (accordion, collapse, collapsible, panel); its label the control's text, the element its
 * `aria-labelledby` names, or the element before it. Other hidden elements
 * (dialogs, templates, menus) and panels of the shop's services stay hidden.
 *
 * Measured on WCXB dev's 92 product pages: +0.0032 (the fire pit's page 0.50
 * -> 0.79, a blender's 0.65 -> 0.67), no page worse; with the labels of
 * benefits, care, use, information and highlights, +0.0022 more (the fire
 * pit 0.79 -> 0.93, a jeweller's necklace 0.79 -> 0.85). Product, fit,
 * technical, nutrition, contents, box, story: no page changed. Every panel shown,
 * whatever its label: -0.0012 (a music shop's panels on its sales engineers,
 * a pottery shop's shipping, 0.75 -> 0.58), by class word only: +0.0005.
 */

const PANEL_ROLES = new Set(['region', 'tabpanel'])
const PANEL_WORDS = new Set(['accordion', 'collapse', 'collapsible', 'panel'])
/** Never a panel to show: a dialog or a menu. */
const NOT_PANEL_ROLES = new Set(['dialog', 'alertdialog', 'menu', 'listbox', 'navigation', 'tooltip'])
/** Nodes walked at most; content past that point is left as it is. */
export const MAX_NODES = 200_000

function isPanel(element: DomElement, controlled: ReadonlyMap<string, string>): boolean {
  const role = attributeOf(element, 'role')
  if (role && NOT_PANEL_ROLES.has(role)) return false
  if (role && PANEL_ROLES.has(role)) return true
  const id = attributeOf(element, 'id')
  if (id && controlled.has(id)) return true
  return attributeWords(element).some((word) => PANEL_WORDS.has(word))
}

/** Labels that name the product's own description, not the shop's services. */
const DESCRIBES = /\b(?:description|details|overview|about|features|specifications|specs|ingredients|materials?|benefits|composition|care|dimensions|use|information|info|highlights)\b/i
/** Words a label may hold. */
const MAX_LABEL_WORDS = 6

/** Characters a label may hold: a longer element's text is not read. */
const MAX_LABEL_CHARS = 80

function shortText(element: DomElement | null | undefined): string | undefined {
  if (!element || textReaches(element, MAX_LABEL_CHARS)) return undefined
  const text = (element?.textContent ?? '').replace(/\s+/g, ' ').trim()
  return text && text.split(' ').length <= MAX_LABEL_WORDS ? text : undefined
}

/** The panel's label: the text of the control naming it, of the element its aria-labelledby names, or of the element before it. */
function panelLabel(panel: HiddenElement, controlled: ReadonlyMap<string, string>, labels: ReadonlyMap<string, DomElement>): string | undefined {
  const id = attributeOf(panel.element, 'id')
  if (id && controlled.has(id)) return controlled.get(id)
  const labelledBy = attributeOf(panel.element, 'aria-labelledby')
  if (labelledBy) return shortText(labels.get(labelledBy.split(/\s+/)[0] ?? ''))
  return shortText(panel.previous)
}

interface HiddenElement {
  element: DomElement
  /** The element sibling before it, if any. */
  previous?: DomElement
}

/** Shows each hidden disclosure panel below `root` (a shop's product page's body); returns how many were shown. */
export function showCollapsedPanels(root: DomElement): number {
  const controlled = new Map<string, string>()
  const labels = new Map<string, DomElement>()
  const hidden: HiddenElement[] = []
  /** Each parent's last element child met so far: the element before the next one met. */
  const lastChild = new Map<DomNode, DomElement>()
  let walked = 0
  for (let node: DomNode | null = root.firstChild; node && walked++ < MAX_NODES; node = nextNode(node, root)) {
    if (node.nodeType !== ELEMENT_NODE) continue
    const element = node as DomElement
    const controls = attributeOf(element, 'aria-controls')
    if (controls) for (const id of controls.split(/\s+/)) if (id) controlled.set(id, shortText(element) ?? '')
    const id = attributeOf(element, 'id')
    if (id && !labels.has(id)) labels.set(id, element)
    const previous = element.parentNode ? lastChild.get(element.parentNode) : undefined
    if (element.parentNode) lastChild.set(element.parentNode, element)
    if (isHidden(element)) hidden.push({ element, previous })
  }
  let shown = 0
  for (const panel of hidden) {
    if (!isPanel(panel.element, controlled) || !DESCRIBES.test(panelLabel(panel, controlled, labels) ?? '')) continue
    show(panel.element)
    shown++
  }
  return shown
}
