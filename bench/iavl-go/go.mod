module chaind/bench/iavl-go

go 1.23

require github.com/cosmos/iavl v1.3.6

require (
	cosmossdk.io/core v0.12.1-0.20240725072823-6a2d039e1212 // indirect
	github.com/cosmos/gogoproto v1.5.0 // indirect
	github.com/cosmos/ics23/go v0.10.0 // indirect
	github.com/emicklei/dot v1.6.2 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang/snappy v0.0.4 // indirect
	github.com/google/btree v1.1.2 // indirect
	github.com/google/go-cmp v0.6.0 // indirect
	github.com/syndtr/goleveldb v1.0.1-0.20210819022825-2ae1ddf74ef7 // indirect
	golang.org/x/crypto v0.23.0 // indirect
	golang.org/x/exp v0.0.0-20231006140011-7918f672742d // indirect
	google.golang.org/protobuf v1.34.2 // indirect
)
