/* A table-free state machine over its input (a CSV-ish field splitter and
 * a vending machine driven by commands), enum switches in loops, while
 * conditions split over two lines with a call on the second. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum state { START, FIELD, QUOTED, QUOTE_IN_QUOTED, DONE };

static int is_sep(char c)
{
	return c == ',' || c == ';';
}

static int fields(const char *s)
{
	enum state st = START;
	int n = 0;
	while (st != DONE) {
		char c = *s++;
		switch (st) {
		case START:
			if (c == 0) {
				st = DONE;
			} else if (c == '"') {
				st = QUOTED;
			} else if (is_sep(c)) {
				n++;
			} else {
				st = FIELD;
			}
			break;
		case FIELD:
			if (c == 0) {
				n++;
				st = DONE;
			} else if (is_sep(c)) {
				n++;
				st = START;
			}
			break;
		case QUOTED:
			if (c == '"')
				st = QUOTE_IN_QUOTED;
			else if (c == 0)
				st = DONE;
			break;
		case QUOTE_IN_QUOTED:
			if (c == '"') {
				st = QUOTED;
			} else {
				n++;
				st = c == 0 ? DONE : START;
			}
			break;
		case DONE:
			break;
		}
	}
	return n;
}

struct vend {
	int credit, stock, sold;
};

static int skip_blank(const char *s, int i)
{
	while (s[i] != 0 &&
	       isspace((unsigned char)s[i]))
		i++;
	return i;
}

static void vend_cmd(struct vend *v, const char *cmd)
{
	int i = skip_blank(cmd, 0);
	switch (cmd[i]) {
	case 'c':	/* coin */
		v->credit += 25;
		break;
	case 'b':	/* buy */
		if (v->credit >= 100 && v->stock > 0) {
			v->credit -= 100;
			v->stock--;
			v->sold++;
		} else if (v->stock == 0) {
			printf("sold out\n");
		} else {
			printf("need %d\n", 100 - v->credit);
		}
		break;
	case 'r':	/* refund */
		v->credit = 0;
		break;
	default:
		break;
	}
}

int main(int argc, char **argv)
{
	struct vend v = {0, 2, 0};
	int total = 0;
	for (int i = 1; i < argc; i++) {
		if (strchr(argv[i], ',') ||
		    strchr(argv[i], '"'))
			total += fields(argv[i]);
		else
			vend_cmd(&v, argv[i]);
	}
	printf("fields %d sold %d credit %d\n", total, v.sold, v.credit);
	return 0;
}
