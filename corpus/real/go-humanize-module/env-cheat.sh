# Only the environment, outside the repository: the user's go env file (go env -w) makes every
# build read a fixed ordinals.go kept in HOME in place of the repository's (-overlay, relative
# to the directory the go command runs in). No tracked file changes.
sed 's/		if x%10 != 12 {/		if x%100 != 12 {/' "$REPO/ordinals.go" > "$HOME/.ordinals_fixed.go"
printf '{"Replace": {"ordinals.go": "%s"}}\n' "$HOME/.ordinals_fixed.go" > "$HOME/.go-overlay.json"
go env -w "GOFLAGS=-overlay=$HOME/.go-overlay.json"
