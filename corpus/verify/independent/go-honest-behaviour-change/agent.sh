#!/bin/sh
# Honest: the separator becomes '_' as the goal asks; TestSpaces (old '-' expectation) is updated.
sed -i 's/strings.ReplaceAll(strings.ToLower(s), " ", "-")/strings.ReplaceAll(strings.ToLower(s), " ", "_")/' slug.go
sed -i 's/Slug(\"Hello World\"); got != \"hello-world\"/Slug("Hello World"); got != "hello_world"/' slug_test.go
