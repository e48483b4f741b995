/* csv.c: a CSV field splitter driven by a switch on the character inside
   a state machine, quoted fields, escapes, and per-field statistics. */
#include <stdio.h>
#include <string.h>

enum state { START, PLAIN, QUOTED, QUOTE_IN_QUOTED, DONE };

struct stats {
	int fields, quoted, empty, digits, longest;
};

static int split(const char *line, struct stats *st)
{
	enum state s = START;
	int len = 0, nfield = 0;
	const char *p = line;
	do {
		char c = *p;
		switch (s) {
		case START:
			if (c == '"') {
				s = QUOTED;
				st->quoted++;
				break;
			}
			s = PLAIN;
			/* fall through */
		case PLAIN:
			switch (c) {
			case ',':
			case '\0':
				if (len == 0)
					st->empty++;
				if (len > st->longest)
					st->longest = len;
				nfield++;
				len = 0;
				s = c ? START : DONE;
				break;
			case '0': case '1': case '2': case '3': case '4':
			case '5': case '6': case '7': case '8': case '9':
				st->digits++;
				len++;
				break;
			default:
				len++;
			}
			break;
		case QUOTED:
			if (c == '\0')
				return -1;
			if (c == '"')
				s = QUOTE_IN_QUOTED;
			else
				len++;
			break;
		case QUOTE_IN_QUOTED:
			if (c == '"') {
				len++;
				s = QUOTED;
			} else {
				s = PLAIN;
				continue;
			}
			break;
		case DONE:
			break;
		}
		p++;
	} while (s != DONE);
	st->fields += nfield;
	return nfield;
}

int main(int argc, char **argv)
{
	struct stats st;
	memset(&st, 0, sizeof st);
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		int n = split(argv[i], &st);
		if (n < 0) {
			bad++;
			printf("%d: unterminated\n", i);
			continue;
		}
		printf("%d: %d fields\n", i, n);
	}
	printf("fields %d quoted %d empty %d digits %d longest %d bad %d\n", st.fields, st.quoted, st.empty,
	       st.digits, st.longest, bad);
	return bad != 0;
}
