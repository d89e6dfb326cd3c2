package tool

import (
	"regexp"
	"strconv"
	"strings"
)

// llvmVersion matches the version line every LLVM tool prints: "LLVM
// version 19.1.7" ("Debian LLVM version 19.1.7" on Debian).
var llvmVersion = regexp.MustCompile(`LLVM version (\d+(?:\.\d+)*)\b`)

// LLVM is the Spec of an LLVM tool of one major release (0: any release),
// told apart by its version line; the version is "19.1.7".
func LLVM(name, env string, major int, install string, files ...string) Spec {
	return Spec{Name: name, Env: env, Files: files, VersionArgs: []string{"--version"}, Install: install,
		Version: func(out string) (string, bool) {
			m := llvmVersion.FindStringSubmatch(out)
			if m == nil || major != 0 && strings.SplitN(m[1], ".", 2)[0] != strconv.Itoa(major) {
				return "", false
			}
			return m[1], true
		}}
}
