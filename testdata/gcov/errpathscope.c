/* errpath.c: error paths left by goto as the whole then branch of an
 * if (one-line and two-line conditions), to cleanup labels in reverse
 * order of acquisition, and a goto out of a loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pair {
	char *key;
	char *val;
};

static int parse(const char *s, struct pair *p, int strict)
{
	const char *eq = strchr(s, '=');
	int rc = -1;
	if (!eq)
		goto out;
	p->key = malloc(eq - s + 1);
	if (!p->key)
		goto out;
	memcpy(p->key, s, eq - s);
	p->key[eq - s] = 0;
	if (strict && (eq == s ||
		       eq[1] == 0))
		goto free_key;
	p->val = strdup(eq + 1);
	if (!p->val)
		goto free_key;
	if (strlen(p->val) > 6)
		goto free_val;
	rc = 0;
	goto out;
free_val:
	free(p->val);
free_key:
	free(p->key);
out:
	return rc;
}

static int first_digit(const char *s)
{
	int i;
	for (i = 0; s[i]; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			goto found;
	}
	return -1;
found:
	return i;
}

int main(int argc, char **argv)
{
	int ok = 0, bad = 0, digits = 0;
	for (int i = 1; i < argc; i++) {
		struct pair p;
		if (parse(argv[i], &p, i % 2) < 0) {
			bad++;
			continue;
		}
		ok++;
		if (first_digit(p.val) >= 0)
			digits++;
		free(p.key);
		free(p.val);
	}
	printf("%d %d %d\n", ok, bad, digits);
	return 0;
}
