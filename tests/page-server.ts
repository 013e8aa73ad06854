import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A long article, so that paging has several pages. */
export function articleHtml(paragraphs = 30): string {
  const body = Array.from({ length: paragraphs }, (_, index) =>
    `<p>Paragraph ${index + 1} of the loopback article. It talks about pinned DNS, vetted redirects and honest paging, sentence after sentence, so that the text is long enough.</p>`,
  ).join('\n')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Loopback article</title></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Loopback article</h1>${body}</article>
<footer>Copyright nobody</footer></body></html>`
}

/**
 * Pages on 127.0.0.1 for the fetch tests: /article (a long page), /slow
 * (headers, then nothing until the client goes away).
 */
export class PageServer {
  private readonly server: Server
  private readonly open = new Set<import('node:http').ServerResponse>()
  origin = ''
  port = 0

  constructor() {
    this.server = createServer((request, response) => {
      if (request.url === '/article') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        response.end(articleHtml())
      } else if (request.url === '/slow') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        response.write('<html><body><p>Starting')
        this.open.add(response)
        response.on('close', () => this.open.delete(response))
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' })
        response.end('not here')
      }
    })
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.port = (this.server.address() as AddressInfo).port
    this.origin = `http://127.0.0.1:${this.port}`
    return this
  }

  async close(): Promise<void> {
    for (const response of this.open) response.destroy()
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}
