// Reference roots and proofs from cosmos/iavl itself, for compare.ts to check packages/sdk/src/store/iavl
// against. Reads a write stream (one op a line) from the file named by the first argument:
//
//	s <hex key> <hex value>   Set
//	r <hex key>               Remove
//	v                         SaveVersion: prints "root <version> <hex root hash>"
//	p <hex key>               GetProof on the last saved version: prints "proof <hex key> <hex CommitmentProof>"
package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/cosmos/iavl"
	dbm "github.com/cosmos/iavl/db"
)

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	must(err)
	return b
}

func main() {
	f, err := os.Open(os.Args[1])
	must(err)
	defer f.Close()
	tree := iavl.NewMutableTree(dbm.NewMemDB(), 0, true, iavl.NewNopLogger())
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	in := bufio.NewScanner(f)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		fields := strings.Fields(in.Text())
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "s":
			_, err := tree.Set(unhex(fields[1]), unhex(fields[2]))
			must(err)
		case "r":
			_, _, err := tree.Remove(unhex(fields[1]))
			must(err)
		case "v":
			root, version, err := tree.SaveVersion()
			must(err)
			fmt.Fprintf(out, "root %d %x\n", version, root)
		case "p":
			imm, err := tree.GetImmutable(tree.Version())
			must(err)
			proof, err := imm.GetProof(unhex(fields[1]))
			must(err)
			bz, err := proof.Marshal()
			must(err)
			fmt.Fprintf(out, "proof %s %x\n", fields[1], bz)
		default:
			must(fmt.Errorf("unknown op %q", fields[0]))
		}
	}
	must(in.Err())
}
