import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import remarkBreaks from 'remark-breaks';
import { Table, Typography } from '@mantine/core';
import { contentLang } from '../lib/contentLang';

// Server text is rendered as markdown only: raw HTML is never rendered
// (no rehype-raw; `skipHtml` drops HTML nodes entirely). Single newlines are
// kept as line breaks: extracted PDF passages rely on them for structure.
const components: Components = {
  table: ({ children }) => (
    <Table.ScrollContainer minWidth={320} type="native">
      <Table withTableBorder withColumnBorders striped>
        {children}
      </Table>
    </Table.ScrollContainer>
  ),
  thead: ({ children }) => <Table.Thead>{children}</Table.Thead>,
  tbody: ({ children }) => <Table.Tbody>{children}</Table.Tbody>,
  tr: ({ children }) => <Table.Tr>{children}</Table.Tr>,
  th: ({ children, style }) => <Table.Th style={style}>{children}</Table.Th>,
  td: ({ children, style }) => <Table.Td style={style}>{children}</Table.Td>,
  a: ({ children, href }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
};

/** Paper content (an answer, a chunk) as markdown, marked with its own language. */
export function Markdown({ children }: { children: string }) {
  return (
    <Typography className="markdown-body" lang={contentLang(children)}>
      <ReactMarkdown remarkPlugins={[remarkGfm, remarkBreaks]} skipHtml components={components}>
        {children}
      </ReactMarkdown>
    </Typography>
  );
}
