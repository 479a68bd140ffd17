import Publisher
