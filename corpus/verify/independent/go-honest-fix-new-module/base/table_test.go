package table

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestRenderGolden(t *testing.T) {
	got := Render([][]string{{"name", "qty"}, {"watermelon", "3"}, {"fig", "12"}})
	if *update {
		os.WriteFile("testdata/render.golden", []byte(got), 0o644)
	}
	want, err := os.ReadFile("testdata/render.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
