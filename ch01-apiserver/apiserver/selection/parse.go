package selection

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"kubik/ch01-apiserver/apiserver/validation"
)

// ParseLabelSelector parses the query-string form of a label selector:
//
//	selector    ::= requirement | requirement "," selector
//	requirement ::= [!] KEY [ ("in" | "notin") "(" values ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
//
// Whitespace separates tokens. "in" and "notin" are keywords only where an
// operator is expected, so "a in (in)" is valid. The result is sorted by
// key, so String returns a normal form.
func ParseLabelSelector(s string) (LabelSelector, error) {
	p := &parser{items: lex(s)}
	reqs, err := p.parse()
	if err != nil {
		return LabelSelector{}, err
	}
	sortByKey(reqs)
	return LabelSelector{requirements: reqs}, nil
}

// token is a lexical class of the selector language.
type token int

const (
	errorToken token = iota
	endOfStringToken
	closedParToken
	commaToken
	doesNotExistToken
	doubleEqualsToken
	equalsToken
	greaterThanToken
	identifierToken
	inToken
	lessThanToken
	notEqualsToken
	notInToken
	openParToken
)

// keywords maps every literal with a meaning of its own to its token;
// anything else is an identifier (a key or a value).
var keywords = map[string]token{
	")":     closedParToken,
	",":     commaToken,
	"!":     doesNotExistToken,
	"==":    doubleEqualsToken,
	"=":     equalsToken,
	">":     greaterThanToken,
	"in":    inToken,
	"<":     lessThanToken,
	"!=":    notEqualsToken,
	"notin": notInToken,
	"(":     openParToken,
}

type item struct {
	tok     token
	literal string
}

func isWhitespace(ch byte) bool { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' }

func isSpecialSymbol(ch byte) bool { return strings.IndexByte("=!(),><", ch) >= 0 }

// lex splits the whole input into items, ending with endOfStringToken.
func lex(s string) []item {
	var items []item
	pos := 0
	for {
		for pos < len(s) && isWhitespace(s[pos]) {
			pos++
		}
		if pos == len(s) {
			return append(items, item{endOfStringToken, ""})
		}
		start := pos
		if isSpecialSymbol(s[pos]) {
			// The longest run of symbols that is still an operator: "!=" and
			// "==" win over "!" and "=", but "=(" is "=" then "(".
			var last item
			for pos < len(s) && isSpecialSymbol(s[pos]) {
				lit := s[start : pos+1]
				tok, ok := keywords[lit]
				if !ok && last.tok != errorToken {
					break
				}
				if ok {
					last = item{tok, lit}
				}
				pos++
			}
			if last.tok == errorToken {
				items = append(items, item{errorToken, fmt.Sprintf("error expected: keyword found '%s'", s[start:pos])})
				continue
			}
			pos = start + len(last.literal)
			items = append(items, last)
			continue
		}
		for pos < len(s) && !isSpecialSymbol(s[pos]) && !isWhitespace(s[pos]) {
			pos++
		}
		lit := s[start:pos]
		if tok, ok := keywords[lit]; ok {
			items = append(items, item{tok, lit})
		} else {
			items = append(items, item{identifierToken, lit})
		}
	}
}

// parser walks the items. Where values are expected, "in" and "notin" are
// plain identifiers.
type parser struct {
	items    []item
	position int
}

// inValues turns the keywords "in"/"notin" into identifiers.
func inValues(it item) item {
	if it.tok == inToken || it.tok == notInToken {
		it.tok = identifierToken
	}
	return it
}

func (p *parser) lookahead() item { return inValues(p.items[p.position]) }

func (p *parser) consume() item {
	it := inValues(p.items[p.position])
	p.position++
	return it
}

// consumeOperator reads the next item with "in"/"notin" as keywords.
func (p *parser) consumeOperator() item {
	it := p.items[p.position]
	p.position++
	return it
}

func (p *parser) parse() ([]Requirement, error) {
	var reqs []Requirement
	for {
		it := p.lookahead()
		switch it.tok {
		case identifierToken, doesNotExistToken:
			r, err := p.parseRequirement()
			if err != nil {
				return nil, fmt.Errorf("unable to parse requirement: %v", err)
			}
			reqs = append(reqs, r)
			next := p.consume()
			switch next.tok {
			case endOfStringToken:
				return reqs, nil
			case commaToken:
				if after := p.lookahead(); after.tok != identifierToken && after.tok != doesNotExistToken {
					return nil, fmt.Errorf("found '%s', expected: identifier after ','", after.literal)
				}
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or 'end of string'", next.literal)
			}
		case endOfStringToken:
			return reqs, nil
		default:
			return nil, fmt.Errorf("found '%s', expected: !, identifier, or 'end of string'", it.literal)
		}
	}
}

func (p *parser) parseRequirement() (Requirement, error) {
	key, op, err := p.parseKeyAndInferOperator()
	if err != nil {
		return Requirement{}, err
	}
	if op == Exists || op == DoesNotExist {
		return NewRequirement(key, op, []string{})
	}
	if op, err = p.parseOperator(); err != nil {
		return Requirement{}, err
	}
	var values []string
	switch op {
	case In, NotIn:
		values, err = p.parseValues()
	default:
		values, err = p.parseExactValue()
	}
	if err != nil {
		return Requirement{}, err
	}
	return NewRequirement(key, op, values)
}

// parseKeyAndInferOperator reads "[!]key". A key followed by "," or the end
// is an existence test.
func (p *parser) parseKeyAndInferOperator() (string, Operator, error) {
	var op Operator
	it := p.consume()
	if it.tok == doesNotExistToken {
		op = DoesNotExist
		it = p.consume()
	}
	if it.tok != identifierToken {
		return "", "", fmt.Errorf("found '%s', expected: identifier", it.literal)
	}
	// Upstream validates the key here without a field path, hence "<nil>".
	if errs := validateLabelKey(it.literal, nil); len(errs) > 0 {
		return "", "", errors.New(validation.AggregateMessage(errs))
	}
	if next := p.lookahead(); next.tok == endOfStringToken || next.tok == commaToken {
		if op != DoesNotExist {
			op = Exists
		}
	}
	return it.literal, op, nil
}

func (p *parser) parseOperator() (Operator, error) {
	it := p.consumeOperator()
	switch it.tok {
	case inToken:
		return In, nil
	case equalsToken:
		return Equals, nil
	case doubleEqualsToken:
		return DoubleEquals, nil
	case greaterThanToken:
		return GreaterThan, nil
	case lessThanToken:
		return LessThan, nil
	case notInToken:
		return NotIn, nil
	case notEqualsToken:
		return NotEquals, nil
	}
	return "", fmt.Errorf("found '%s', expected: %v", it.literal, strings.Join(binaryOperators, ", "))
}

// parseValues reads "(v1,v2,...)". Empty entries are the empty value:
// "()" is {""} and "(a,)" is {"", "a"}.
func (p *parser) parseValues() ([]string, error) {
	it := p.consume()
	if it.tok != openParToken {
		return nil, fmt.Errorf("found '%s' expected: '('", it.literal)
	}
	it = p.lookahead()
	switch it.tok {
	case identifierToken, commaToken:
		values, err := p.parseIdentifiersList()
		if err != nil {
			return nil, err
		}
		if closing := p.consume(); closing.tok != closedParToken {
			return nil, fmt.Errorf("found '%s', expected: ')'", it.literal)
		}
		return values, nil
	case closedParToken:
		p.consume()
		return []string{""}, nil
	}
	return nil, fmt.Errorf("found '%s', expected: ',', ')' or identifier", it.literal)
}

// parseIdentifiersList reads the comma-separated list up to (not including)
// ")". The result is a sorted set.
func (p *parser) parseIdentifiersList() ([]string, error) {
	set := map[string]bool{}
	for {
		it := p.consume()
		switch it.tok {
		case identifierToken:
			set[it.literal] = true
			switch next := p.lookahead(); next.tok {
			case commaToken:
				continue
			case closedParToken:
				return sortedSet(set), nil
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or ')'", next.literal)
			}
		case commaToken:
			if len(set) == 0 {
				set[""] = true // "(,"
			}
			switch p.lookahead().tok {
			case closedParToken:
				set[""] = true // ",)"
				return sortedSet(set), nil
			case commaToken:
				set[""] = true // ",,"
			}
		default:
			return nil, fmt.Errorf("found '%s', expected: ',', or identifier", it.literal)
		}
	}
}

// parseExactValue reads the one value after =, ==, !=, > or <; nothing
// before "," or the end is the empty value.
func (p *parser) parseExactValue() ([]string, error) {
	if next := p.lookahead(); next.tok == endOfStringToken || next.tok == commaToken {
		return []string{""}, nil
	}
	it := p.consume()
	if it.tok == identifierToken {
		return []string{it.literal}, nil
	}
	return nil, fmt.Errorf("found '%s', expected: identifier", it.literal)
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}
