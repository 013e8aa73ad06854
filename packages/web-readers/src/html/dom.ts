/**
 * The few DOM members the extraction code uses, typed structurally so that
 * the package compiles without the DOM lib and works on linkedom's documents.
 */
export interface DomNode {
  nodeType: number
  nodeName: string
  textContent: string | null
  parentNode: DomNode | null
  childNodes: ArrayLike<DomNode>
  firstChild: DomNode | null
  nextSibling: DomNode | null
  remove(): void
  insertBefore(node: DomNode, reference: DomNode | null): void
}

export interface DomElement extends DomNode {
  tagName: string
  localName: string
  innerHTML: string
  outerHTML: string
  getAttribute(name: string): string | null
  setAttribute(name: string, value: string): void
  removeAttribute(name: string): void
  hasAttribute(name: string): boolean
  hasAttributes(): boolean
  querySelectorAll(selector: string): ArrayLike<DomElement>
  querySelector(selector: string): DomElement | null
  replaceWith(...nodes: (DomNode | string)[]): void
  appendChild(node: DomNode): DomNode
}

export interface DomDocument extends DomNode {
  documentElement: DomElement | null
  body: DomElement | null
  head: DomElement | null
  title: string
  querySelectorAll(selector: string): ArrayLike<DomElement>
  querySelector(selector: string): DomElement | null
  createElement(name: string): DomElement
}

export const ELEMENT_NODE = 1
export const TEXT_NODE = 3
