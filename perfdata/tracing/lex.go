package tracing

// The tokenizer of libtraceevent (event-parse.c, __read_token), used for
// the format files and their print fmt.

type tokType uint8

const (
	tokError tokType = iota
	tokNone          // end of input (or a non-printable byte)
	tokSpace
	tokNewline
	tokOp
	tokDelim // ( ) ,
	tokItem  // identifiers and numbers
	tokDQuote
	tokSQuote
)

func charType(c int) tokType {
	switch {
	case c < 0:
		return tokNone
	case c == '\n':
		return tokNewline
	case c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r':
		return tokSpace
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		return tokItem
	case c == '\'':
		return tokSQuote
	case c == '"':
		return tokDQuote
	case c < 0x20 || c > 0x7e:
		return tokNone
	case c == '(' || c == ')' || c == ',':
		return tokDelim
	}
	return tokOp
}

func isSpace(c int) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// lexer reads tokens from src.
type lexer struct {
	src string
	pos int
}

func (l *lexer) readChar() int {
	if l.pos >= len(l.src) {
		return -1
	}
	c := l.src[l.pos]
	l.pos++
	return int(c)
}

func (l *lexer) peek() int {
	if l.pos >= len(l.src) {
		return -1
	}
	return int(l.src[l.pos])
}

// raw reads one token, spaces included.
func (l *lexer) raw() (tokType, string) {
	start := l.pos
	ch := l.readChar()
	typ := charType(ch)
	if typ == tokNone {
		return tokNone, ""
	}
	switch typ {
	case tokNewline, tokDelim:
		return typ, l.src[start:l.pos]
	case tokOp:
		switch ch {
		case '-':
			if l.peek() == '>' {
				l.readChar()
				return typ, l.src[start:l.pos]
			}
			fallthrough
		case '+', '|', '&', '>', '<':
			last := ch
			if l.peek() != last {
				l.testEqual()
				return typ, l.src[start:l.pos]
			}
			l.readChar()
			if last == '>' || last == '<' {
				l.testEqual()
			}
			return typ, l.src[start:l.pos]
		case '!', '=':
			l.testEqual()
			return typ, l.src[start:l.pos]
		}
		return typ, l.src[start:l.pos]
	case tokDQuote, tokSQuote:
		return typ, l.quoted(ch, typ)
	}
	for charType(l.peek()) == typ {
		l.readChar()
	}
	tok := l.src[start:l.pos]
	if typ == tokItem {
		// libtraceevent's work-around for old mac80211 formats.
		switch tok {
		case "LOCAL_PR_FMT":
			return tokDQuote, "%s"
		case "STA_PR_FMT":
			return tokDQuote, " sta:%pM"
		case "VIF_PR_FMT":
			return tokDQuote, " vif:%p(%d)"
		}
	}
	return typ, tok
}

func (l *lexer) testEqual() {
	if l.peek() == '=' {
		l.readChar()
	}
}

// quoted reads a quoted token after its opening quote, keeping escapes as
// written; adjacent double-quoted strings are joined. Any byte but an
// unescaped closing quote belongs to the string, a TAB or another control
// byte too (perf 6.1's own tools/lib/traceevent __read_token; the later
// libtraceevent 1.x also ends a string at a non-printable byte, which
// made maple_tree's formats, "%s\tNode %p ...", fail there); the end of
// the input ends it (where perf would read on forever).
func (l *lexer) quoted(quote int, typ tokType) string {
	var out []byte
	for {
		start := l.pos
		ch, last := quote, 0
		for {
			last = ch
			ch = l.readChar()
			if ch == '\\' && last == '\\' {
				last = 0
			}
			if ch < 0 || ch == quote && last != '\\' {
				break
			}
		}
		end := l.pos
		if ch >= 0 {
			end-- // drop the closing quote (or the byte that stopped us)
		}
		out = append(out, l.src[start:end]...)
		if typ != tokDQuote {
			break
		}
		save := l.pos
		c := l.readChar()
		for isSpace(c) {
			c = l.readChar()
		}
		if c != '"' {
			l.pos = save
			break
		}
	}
	return string(out)
}

// next reads a token, skipping spaces (libtraceevent's read_token).
func (l *lexer) next() (tokType, string) {
	for {
		t, s := l.raw()
		if t != tokSpace {
			return t, s
		}
	}
}

// item reads a token, skipping spaces and newlines (read_token_item).
func (l *lexer) item() (tokType, string) {
	for {
		t, s := l.raw()
		if t != tokSpace && t != tokNewline {
			return t, s
		}
	}
}
