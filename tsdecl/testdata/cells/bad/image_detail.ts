// want: TS2345
image("data:image/png;base64,AAAA", "medium");
