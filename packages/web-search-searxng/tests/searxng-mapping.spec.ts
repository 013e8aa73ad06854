import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXTURES, providerFor, rejection } from './helpers.js'

describe('searxng: the answer mapped to the neutral result', () => {
  const server = useFixtureServer(FIXTURES)

  it('results: url, title, content as snippet, publishedDate when given, engine names, in SearXNG order', async () => {
    server.reply('searxng-multi-result')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'rust async runtime' }, call())
    assert.equal(result.providerId, 'searxng')
    assert.equal(result.query, 'rust async runtime')
    assert.deepEqual(result.queries, ['rust async runtime'])
    assert.deepEqual(result.sources, [
      {
        url: 'https://tokio.rs/',
        title: 'Tokio - An asynchronous Rust runtime',
        snippet: 'Tokio is an asynchronous runtime for the Rust programming language.',
        engines: ['duckduckgo', 'brave', 'startpage'],
      },
      {
        url: 'https://docs.rs/tokio/latest/tokio/',
        title: 'tokio - Rust',
        snippet: 'A runtime for writing reliable network applications without compromising speed.',
        engines: ['duckduckgo', 'brave'],
      },
      {
        url: 'https://github.com/tokio-rs/tokio',
        title: 'tokio-rs/tokio: A runtime for writing reliable asynchronous applications with Rust',
        snippet: 'Tokio is an event-driven, non-blocking I/O platform for writing asynchronous applications with Rust.',
        publishedDate: '2025-03-01T00:00:00',
        engines: ['startpage'],
      },
      // content "" (SearXNG empties it when it equals the title): no snippet.
      { url: 'https://en.wikipedia.org/wiki/Async/await', title: 'Async/await - Wikipedia', publishedDate: '2024-11-20T08:15:00+00:00', engines: ['wikipedia'] },
    ])
    assert.equal(result.answer, undefined)
    assert.deepEqual(result.filters, [])
    assert.deepEqual(result.warnings, [])
    assert.deepEqual(result.usage, { searchRequests: 1 })
    await provider.close()
  })

  it('answers as strings (older SearXNG, number_of_results present): an instant answer no model wrote', async () => {
    server.reply('searxng-answers-strings')
    const { provider } = providerFor(server, { maxResults: 1 })
    const result = await provider.search({ query: '10 usd in eur' }, call())
    assert.deepEqual(result.answer, { text: '10 USD = 9.2 EUR\n\nRate as of 2025-03-01', citations: [], modelWritten: false })
    assert.equal(result.sources.length, 1)
    await provider.close()
  })

  it('answers as objects (newer SearXNG): answer and translations read, with the URL cited over its part; a kind not read is said in a warning', async () => {
    server.reply('searxng-answers-objects')
    const { provider } = providerFor(server, { maxResults: 1 })
    const result = await provider.search({ query: 'hola in english' }, call())
    const text = '2 + 2 = 4\n\nhola: hello, hi\n\nhello; hi'
    assert.deepEqual(result.answer, {
      text,
      citations: [{ url: 'https://www.wordreference.com/es/en/translation.asp?spen=hola', start: 11, end: 26 }],
      modelWritten: false,
    })
    assert.equal(text.slice(11, 26), 'hola: hello, hi')
    assert.deepEqual(result.warnings, ['Instant answers of a kind this provider does not read were left out (answer/weather.html from wttr.in).'])
    await provider.close()
  })

  it('an infobox: title, content and attributes as the answer, its URLs cited', async () => {
    server.reply('searxng-infobox')
    const { provider } = providerFor(server, { maxResults: 1 })
    const result = await provider.search({ query: 'tokio rust' }, call())
    const text = 'Tokio (software)\nTokio is a software library for the Rust programming language.\nWritten in: Rust\nLicense: MIT License\nInitial release: 2016'
    assert.deepEqual(result.answer, {
      text,
      citations: [
        { url: 'https://tokio.rs/', title: 'Official website', start: 0, end: text.length },
        { url: 'https://en.wikipedia.org/wiki/Tokio_(software)', title: 'Wikipedia (en)', start: 0, end: text.length },
      ],
      modelWritten: false,
    })
    assert.deepEqual(result.sources.map((source) => source.url), ['https://tokio.rs/'])
    await provider.close()
  })

  it('unresponsive engines beside results: a warning naming each engine and its reason', async () => {
    server.reply('searxng-unresponsive-engines')
    const { provider } = providerFor(server, { maxResults: 2 })
    const result = await provider.search({ query: 'rust async runtime' }, call())
    assert.equal(result.sources.length, 2)
    assert.deepEqual(result.warnings, ['2 engines did not answer: google (timeout), qwant (Suspended: CAPTCHA); the results are from the others.'])
    await provider.close()
  })

  it('no results and every engine failing: WEB_SEARCH_FAILED listing the engines and their reasons', async () => {
    server.reply('searxng-all-engines-failed')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'rust async runtime' }, call()))
    assert.equal(error.code, 'WEB_SEARCH_FAILED')
    assert.equal(
      error.message,
      'SearXNG returned no results, and 3 engines it asked did not answer: bing (HTTP error), duckduckgo (CAPTCHA), google (timeout). ' +
        'Check those engines on the instance (or name working ones in `engines` of the searxng row); a retry may help when they timed out.',
    )
    assert.deepEqual(error.details.engines, ['bing', 'duckduckgo', 'google'])
    assert.equal(error.details.providerCode, 'engines_unresponsive')
    assert.equal(error.retryable, true)
    assert.equal(server.requests.length, 1, 'an empty first page ends the paging')
    await provider.close()
  })

  it('no results and no failing engine: an empty result with a warning, not an error', async () => {
    server.reply('searxng-no-results')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'qwxzvkj' }, call())
    assert.deepEqual(result.sources, [])
    assert.deepEqual(result.warnings, ['The web search returned no results.'])
    await provider.close()
  })

  it('a result without a URL is left out and counted; a repeated URL is listed once, first occurrence kept', async () => {
    server.reply('searxng-null-url')
    const { provider } = providerFor(server, { maxResults: 1 })
    const result = await provider.search({ query: 'rust async runtime' }, call())
    assert.deepEqual(result.sources.map((source) => [source.url, source.engines]), [['https://tokio.rs/', ['duckduckgo', 'brave', 'startpage']]])
    assert.deepEqual(result.warnings, ['1 result without a URL left out (nothing to cite or fetch).'])
    await provider.close()
  })

  it('a result with only `engine` (a legacy dict) still names its engine', async () => {
    server.reply({ status: 200, body: { query: 'q', results: [{ url: 'https://a.example/', title: 'A', engine: 'mojeek' }] } })
    const { provider } = providerFor(server, { maxResults: 1 })
    const result = await provider.search({ query: 'q' }, call())
    assert.deepEqual(result.sources, [{ url: 'https://a.example/', title: 'A', engines: ['mojeek'] }])
    await provider.close()
  })
})
