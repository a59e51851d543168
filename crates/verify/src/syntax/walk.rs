//! Tree walks without recursion: a source nested ten thousand deep must not exhaust the stack.

use tree_sitter::Node;

/// What a visitor wants after seeing a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Visit the node's children.
    Into,
    /// Do not visit the node's children.
    Skip,
}

/// Visit `root` and its descendants in source order (pre-order), iteratively.
pub(crate) fn preorder<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>) -> Step) {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let descend = visit(node) == Step::Into;
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == root {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Like [`preorder`], with the node's ancestors (outermost first, `root` included) handed to
/// the visitor: a tree-sitter node finds its parent by walking down from the root, so asking
/// each node of a deep tree for its parent would be quadratic.
pub(crate) fn preorder_stack<'t>(
    root: Node<'t>,
    mut visit: impl FnMut(Node<'t>, &[Node<'t>]) -> Step,
) {
    let mut cursor = root.walk();
    let mut stack: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        let descend = visit(node, &stack) == Step::Into;
        if descend && cursor.goto_first_child() {
            stack.push(node);
            continue;
        }
        loop {
            if cursor.node() == root {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            stack.pop();
        }
    }
}

/// How far up [`ancestor`] looks: a class, a `describe` or a module further out than this is
/// not looked for (each step up costs a walk from the root).
const MAX_UP: usize = 64;

/// The named children of a node.
pub(crate) fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// The nearest ancestor (not the node itself) whose kind is one of `kinds`.
pub(crate) fn ancestor<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cur = node.parent();
    let mut steps = 0;
    while let Some(n) = cur {
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        steps += 1;
        if steps > MAX_UP {
            return None;
        }
        cur = n.parent();
    }
    None
}
