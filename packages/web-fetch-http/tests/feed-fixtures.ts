/** Feeds for the tests, written here (none is downloaded). */

export const RSS_FEED = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/">
  <channel>
    <title>Loopback News &amp; Notes</title>
    <link>https://news.test/</link>
    <description>Everything that happens on 127.0.0.1</description>
    <item>
      <title>First story</title>
      <link>https://news.test/first</link>
      <pubDate>Tue, 10 Jun 2025 04:00:00 GMT</pubDate>
      <description>&lt;p&gt;The &lt;b&gt;first&lt;/b&gt; summary.&lt;/p&gt;&lt;p&gt;Second paragraph.&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;</description>
    </item>
    <item>
      <title><![CDATA[Second <story>]]></title>
      <guid isPermaLink="true">https://news.test/second</guid>
      <dc:date>2025-06-11T08:30:00Z</dc:date>
      <content:encoded><![CDATA[<div>Only <i>content:encoded</i> here</div>]]></content:encoded>
    </item>
    <item>
      <title>Relative link</title>
      <link>/third</link>
    </item>
  </channel>
</rss>
`

export const ATOM_FEED = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Atom Log</title>
  <subtitle>Entries on loopback</subtitle>
  <link href="https://atom.test/" rel="alternate"/>
  <link href="https://atom.test/feed.xml" rel="self"/>
  <updated>2025-06-12T00:00:00Z</updated>
  <entry>
    <title type="html">Entry &lt;em&gt;one&lt;/em&gt;</title>
    <link rel="edit" href="https://atom.test/edit/1"/>
    <link rel="alternate" href="https://atom.test/one"/>
    <published>2025-06-12T10:00:00+02:00</published>
    <updated>2025-06-13T10:00:00Z</updated>
    <summary type="html">&lt;p&gt;Summary &amp;amp; more&lt;/p&gt;</summary>
  </entry>
  <entry>
    <title>Entry two</title>
    <link href="https://atom.test/two"/>
    <updated>2025-06-14T00:00:00Z</updated>
    <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Inline <b>xhtml</b> body</p></div></content>
  </entry>
</feed>
`

/** An RSS feed in ISO-8859-1 that says so only in its XML declaration. */
export const LATIN1_FEED = Buffer.from(
  `<?xml version="1.0" encoding="ISO-8859-1"?><rss version="2.0"><channel><title>Caf\xe9</title><item><title>Cr\xe8me br\xfbl\xe9e</title><link>https://latin.test/1</link></item></channel></rss>`,
  'latin1',
)
