/* Surrogate trees (paper Sec. 4, Appendices A and B). */
#ifndef MRDEM_TREE_TREE_H
#define MRDEM_TREE_TREE_H

struct mrdem_tree;

/* Free a tree; NULL is a no-op. */
void mrdem_tree_free(struct mrdem_tree *t);

#endif
