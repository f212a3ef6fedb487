module kubik

go 1.26

require (
	google.golang.org/protobuf v1.36.12
	gopkg.in/yaml.v3 v3.0.1
)
